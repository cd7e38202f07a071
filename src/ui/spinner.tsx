export function Spinner({ label = 'Loading', size = 24 }: { label?: string; size?: number }) {
  return <span className="spinner" role="status" aria-label={label} data-size={size > 24 ? 'large' : undefined} />;
}

/** A whole-area spinner, e.g. while the sign-in provider loads. */
export function FullPageSpinner({ label = 'Loading' }: { label?: string }) {
  return (
    <div className="full-page-center">
      <Spinner label={label} size={40} />
    </div>
  );
}
