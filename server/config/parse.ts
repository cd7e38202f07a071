// The one strict parser of the environment: every setting that is a number, a port, a flag, a choice or a URL is
// read here, and a bad value stops the start with one line that names the variable, the value and what it must be
// (main.ts prints it and exits non-zero). Unset or empty means the setting's default.
export type Env = NodeJS.ProcessEnv;

/** The one shape of a refusal: `PORT must be a port from 0 to 65535, not "abc"`. */
export function refuse(name: string, value: string | undefined, what: string): Error {
  return new Error(`${name} must be ${what}, not "${value ?? ''}"`);
}

/** A setting that names one of `choices` (the first is the default). */
export function oneOf<T extends string>(env: Env, name: string, choices: readonly T[]): T {
  const value = (env[name] || choices[0]).toLowerCase();
  if (!choices.includes(value as T)) throw refuse(name, env[name], choices.join(' or '));
  return value as T;
}

/** A positive number setting, or its default when unset; anything else stops the start with its name. */
export function positive(env: Env, name: string, fallback: number, integer = true): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw refuse(name, value, `a positive ${integer ? 'whole ' : ''}number`);
  }
  return n;
}

/** A positive whole number setting, or undefined when unset (the provider's own default). */
export function positiveOrUnset(env: Env, name: string): number | undefined {
  return env[name] ? positive(env, name, 0) : undefined;
}

export function httpUrl(env: Env, name: string): string | undefined {
  const value = env[name];
  if (!value) return undefined;
  if (!URL.canParse(value) || !['http:', 'https:'].includes(new URL(value).protocol)) throw refuse(name, value, 'an http(s) URL');
  return value;
}

export function oneOrZero(env: Env, name: string): boolean | undefined {
  const value = env[name];
  if (!value) return undefined;
  if (value !== '0' && value !== '1') throw refuse(name, value, '0 or 1');
  return value === '1';
}

/** "0.25,0.2" → [0.25, 0.2] */
export function fractions(env: Env, name: string): [number, number] | undefined {
  const value = env[name];
  if (!value) return undefined;
  const parts = value.split(',').map((p) => (p.trim() ? Number(p) : NaN));
  if (parts.length !== 2 || !parts.every((n) => n >= 0 && n <= 1)) throw refuse(name, value, 'two fractions from 0 to 1 like 0.25,0.2');
  return [parts[0], parts[1]];
}

/** A TCP port, 0 to 65535 (0: a free one, for tests); anything else stops the start with one clear line. */
export function portNumber(env: Env, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value.trim() === '') return fallback;
  const n = wholeNumber(name, value);
  if (n > 65535) throw refuse(name, value, 'a port from 0 to 65535');
  return n;
}

/** A setting that must be a whole number ≥ 0: anything else stops the start with one clear line. */
export function wholeNumber(name: string, value: string): number {
  const n = Number(value.trim());
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw refuse(name, value, 'a whole number ≥ 0');
  return n;
}

/** A setting that is 1/true or 0/false (unset: false); anything else stops the start. */
export function flag(env: Env, name: string): boolean {
  const value = (env[name] ?? '').trim().toLowerCase();
  if (value === '' || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw refuse(name, env[name], '1 or 0');
}

/** A whole number of at least 1 (unset: the default). */
export function count(env: Env, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw refuse(name, value, 'a whole number of at least 1');
  return n;
}

/** A comma-separated list (blanks dropped; unset: empty). */
export function list(env: Env, name: string): string[] {
  return (env[name] ?? '').split(',').map((item) => item.trim()).filter(Boolean);
}
