// The pages for what is not there or not allowed: forbidden and not found.
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
