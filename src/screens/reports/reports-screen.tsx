// The Reports page (/reports, spec §2): entries waiting for review, then all reports.
import { useTitle } from '../../lib/title.tsx';
import { AllReportsSection } from './all-reports-section.tsx';
import { ReviewSection } from './review-section.tsx';

export default function ReportsScreen() {
  useTitle('Reports');
  return (
    <div className="reports">
      <ReviewSection />
      <AllReportsSection />
    </div>
  );
}
