// Honest pages for what is not there: forbidden, not found, and screens still being built.
import { useTitle } from '../../lib/title.tsx';
import { Link } from '../../lib/router.ts';

export function Forbidden() {
  return <p className="page-message error-text">Forbidden: Admins only.</p>;
}

export function NotFound() {
  useTitle('Page not found');
  return (
    <div className="page-message">
      <p>There is no page at this address.</p>
      <Link href="/">Go to Your Agents</Link>
    </div>
  );
}

/** A screen whose issue has not landed yet: says so plainly, shows no made-up data. */
export function ComingSoon({ name, title }: { name: string; title?: string }) {
  useTitle(title);
  return (
    <div className="page-message">
      <p>{name} is not available yet in this version of Agent Workspace.</p>
    </div>
  );
}
