// The local provider's test-mode billing portal as server-rendered HTML: plain forms posting back
// with a fresh single-use token, no inline script or style (the app's CSP applies). It borrows the
// app's stylesheet and a tiny same-origin script that applies the stored theme.
import type { CustomerFields, PaymentMethod } from './customers.ts';
import type { CardErrors } from './test-cards.ts';

export type PortalView = {
  email: string;
  token: string;
  stylesheet: string | null;
  card: PaymentMethod | null;
  details: CustomerFields;
  notice?: string;
  cardErrors?: CardErrors;
  cardInput?: { exp_month: string; exp_year: string };
  detailErrors?: Partial<Record<keyof CustomerFields, string>>;
};

export const PORTAL_ACTION = '/api/billing/portal';
export const THEME_SCRIPT_PATH = '/api/billing/portal/theme.js';
export const RETURN_PATH = '/settings/billing';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const cardLabel = (c: PaymentMethod) =>
  `${c.brand.charAt(0).toUpperCase()}${c.brand.slice(1)} •••• ${c.last4} ` +
  `(exp ${String(c.exp_month).padStart(2, '0')}/${String(c.exp_year % 100).padStart(2, '0')})`;

function page(title: string, stylesheet: string | null, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>${escape(title)} · Agent Workspace</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
${stylesheet ? `<link rel="stylesheet" href="${escape(stylesheet)}">` : ''}
<script src="${THEME_SCRIPT_PATH}"></script>
</head>
<body class="portal-page">
<main class="portal">
<p class="portal-mode" role="note"><strong>Test mode</strong> — nothing is charged. Use a test card such as 4242 4242 4242 4242.</p>
${body}
<p class="portal-return"><a class="button" href="${RETURN_PATH}">Return to Agent Workspace</a></p>
</main>
</body>
</html>`;
}

function field(name: string, label: string, value: string, error: string | undefined, attrs = ''): string {
  const id = `portal-${name}`;
  const described = error ? ` aria-invalid="true" aria-describedby="${id}-error"` : '';
  return `<label class="field" for="${id}"><span>${escape(label)}</span>
<input id="${id}" name="${name}" value="${escape(value)}"${described} ${attrs}>
${error ? `<span class="field-error" id="${id}-error">${escape(error)}</span>` : ''}</label>`;
}

export function portalPage(v: PortalView): string {
  const ce = v.cardErrors ?? {};
  const de = v.detailErrors ?? {};
  const d = v.details;
  const hidden = (action: string) => `<input type="hidden" name="token" value="${escape(v.token)}"><input type="hidden" name="action" value="${action}">`;
  return page('Billing portal', v.stylesheet, `
<h1>Billing portal</h1>
<p class="muted">Signed in as ${escape(v.email)}</p>
${v.notice ? `<p class="portal-notice" role="status">${escape(v.notice)}</p>` : ''}
<section class="portal-section" aria-labelledby="portal-card-title">
<h2 id="portal-card-title">Payment method</h2>
<p class="portal-current">${v.card ? escape(cardLabel(v.card)) : 'No payment method set.'}</p>
<form method="post" action="${PORTAL_ACTION}" class="portal-form" novalidate>
${hidden('card')}
${field('number', 'Card number', '', ce.number, 'inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" required')}
<div class="portal-row">
${field('exp_month', 'Expiry month', v.cardInput?.exp_month ?? '', ce.exp_month, 'inputmode="numeric" autocomplete="cc-exp-month" placeholder="MM" required')}
${field('exp_year', 'Expiry year', v.cardInput?.exp_year ?? '', ce.exp_year, 'inputmode="numeric" autocomplete="cc-exp-year" placeholder="YYYY" required')}
${field('cvc', 'CVC', '', ce.cvc, 'inputmode="numeric" autocomplete="cc-csc" placeholder="123" required')}
</div>
<button class="button button-primary" type="submit">${v.card ? 'Replace card' : 'Add card'}</button>
</form>
</section>
<section class="portal-section" aria-labelledby="portal-details-title">
<h2 id="portal-details-title">Billing details</h2>
<form method="post" action="${PORTAL_ACTION}" class="portal-form" novalidate>
${hidden('details')}
${field('name', 'Name', d.name, de.name, 'autocomplete="name"')}
${field('email', 'Email', d.email, de.email, 'type="email" autocomplete="email"')}
${field('address_line1', 'Address', d.address_line1, de.address_line1, 'autocomplete="address-line1"')}
<div class="portal-row">
${field('postal_code', 'Postal code', d.postal_code, de.postal_code, 'autocomplete="postal-code"')}
${field('city', 'City', d.city, de.city, 'autocomplete="address-level2"')}
${field('country', 'Country (2 letters)', d.country, de.country, 'autocomplete="country" maxlength="2"')}
</div>
<button class="button button-primary" type="submit">Save details</button>
</form>
</section>`);
}

export function expiredPage(stylesheet: string | null): string {
  return page('Billing portal', stylesheet, `
<h1>Billing portal</h1>
<p class="portal-expired" role="alert">This link has expired or was already used. Open the portal again from Billing settings.</p>`);
}

/**
 * Applies the app's stored theme (else the OS preference) before the page paints. And Return: the portal is a tab
 * the Billing page opened, which catches up by itself when the user comes back, so Return closes this tab; only a
 * tab that may not be closed (a link opened by hand) goes to the app instead of leaving a second app tab. No timer:
 * one that fired while a slow close was under way navigated the closing tab.
 */
export const THEME_SCRIPT = `try {
  var t = localStorage.getItem('theme');
  if (t !== 'light' && t !== 'dark') t = matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  document.documentElement.dataset.theme = t;
} catch (e) {}
document.addEventListener('click', function (e) {
  var a = e.target && e.target.closest ? e.target.closest('.portal-return a') : null;
  if (!a) return;
  e.preventDefault();
  window.close();
  if (!window.closed) location.href = a.href; // closed turns true at once when the browser will close the tab
});
`;
