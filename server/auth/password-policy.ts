// What a new password must be: 8 to 256 characters, not all blank, not one character repeated, not the
// account's e-mail address, and not one of the passwords every guessing list starts with. Deliberately no
// composition rules (NIST SP 800-63B §5.1.1.2): length and a block list do the work.

export const MIN_PASSWORD = 8;
export const MAX_PASSWORD = 256;

// The most common passwords of at least 8 characters in public breach corpora (lower case).
const COMMON = new Set([
  '12345678', '123456789', '1234567890', '0123456789', '87654321', '987654321', '11111111', '00000000',
  '12341234', '11223344', '123123123', '12344321', '1234qwer', '1q2w3e4r', '1q2w3e4r5t', 'q1w2e3r4',
  '1qaz2wsx', 'zaq12wsx', 'qwertyui', 'qwertyuiop', 'qwerty123', 'qwerty12', 'asdfghjk', 'asdfasdf',
  'zxcvbnm1', 'abcd1234', 'abc12345', 'a1b2c3d4', 'password', 'password1', 'password12', 'password123',
  'password!', 'passw0rd', 'p@ssw0rd', 'p@ssword', 'pass1234', 'iloveyou', 'iloveyou1', 'sunshine',
  'princess', 'football', 'baseball', 'basketball', 'superman', 'starwars', 'trustno1', 'letmein1',
  'letmein123', 'welcome1', 'welcome123', 'whatever', 'changeme', 'admin123', 'administrator', 'computer',
  'internet', 'michael1', 'jennifer', 'jordan23', 'football1', 'monkey123', 'dragon123', 'shadow123',
  'master123', 'qazwsxedc', 'chocolate', 'butterfly', 'liverpool', 'charlie1', 'freedom1', 'samsung1',
  'google123', 'secret123', 'test1234', 'testtest', 'default1', 'mypassword', 'letmeinnow',
]);

/** Why the password cannot be used, or null when it can. */
export function passwordProblem(password: string, email = ''): string | null {
  if (password.length < MIN_PASSWORD) return `Password must be at least ${MIN_PASSWORD} characters`;
  if (password.length > MAX_PASSWORD) return `Password must be at most ${MAX_PASSWORD} characters`;
  if (!password.trim()) return 'Password must not be blank';
  const lower = password.toLowerCase();
  if (/^(.)\1+$/su.test(password) || COMMON.has(lower)) return 'This password is too common. Choose one that is harder to guess';
  if (email && lower === email.trim().toLowerCase()) return 'Password must not be your e-mail address';
  return null;
}
