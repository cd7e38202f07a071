// A failed load on an admin screen: the spec's text (§8), and the server's detail beneath it.
import type { ApiError } from '../../lib/http.ts';

export function LoadError({ text, error }: { text: string; error: ApiError }) {
  return (
    <div className="form-error admin-error" role="alert">
      <p>{text}</p>
      {error.detail && error.detail !== text && <p className="admin-error-detail">{error.detail}</p>}
    </div>
  );
}
