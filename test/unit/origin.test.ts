// Our origin and the same-site check, with and without PUBLIC_URL (the server suite covers the default).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../../server/http/errors.ts';
import { ownOrigin, requireSameSiteJson, socketOrigin } from '../../server/http/origin.ts';

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const status = (fn: () => void): number | null => {
  try {
    fn();
    return null;
  } catch (err) {
    assert.instance(err, HttpError);
    return (err as HttpError).status;
  }
};

const origin = suite('origin: whose is it');

origin('PUBLIC_URL wins over any Host header', () => {
  const config = { publicUrl: 'https://agents.example.com', port: 8080 };
  assert.is(ownOrigin(req({ host: 'evil.example' }), config), 'https://agents.example.com');
  assert.is(socketOrigin(req({ host: 'evil.example' }), config), 'wss://agents.example.com');
});

origin('without it the Host counts only when it names this server on the port it listens on', () => {
  const config = { publicUrl: null, port: 8080 };
  assert.is(ownOrigin(req({ host: 'localhost:8080' }), config), 'http://localhost:8080');
  assert.is(ownOrigin(req({ host: '127.0.0.1:8080' }), config), 'http://127.0.0.1:8080');
  assert.is(ownOrigin(req({ host: '[::1]:8080' }), config), 'http://[::1]:8080');
  assert.is(ownOrigin(req({ host: 'localhost:9090' }), config), null);
  assert.is(ownOrigin(req({ host: 'evil.example:8080' }), config), null);
  assert.is(ownOrigin(req({ host: 'localhost:8080/x' }), config), null);
  assert.is(ownOrigin(req({}), config), null);
  assert.is(socketOrigin(req({ host: 'evil.example' }), config), 'ws://localhost:8080');
});

origin.run();

const sameSite = suite('origin: the same-site JSON rule');

sameSite('the body must be JSON', () => {
  assert.is(status(() => requireSameSiteJson(req({ 'content-type': 'text/plain' }), null)), 415);
  assert.is(status(() => requireSameSiteJson(req({}), null)), 415);
  assert.is(status(() => requireSameSiteJson(req({ 'content-type': 'application/json; charset=utf-8' }), null)), null);
});

sameSite('with PUBLIC_URL the Origin must be exactly it', () => {
  const json = { 'content-type': 'application/json', host: 'internal:8080' };
  const check = (o: string) => status(() => requireSameSiteJson(req({ ...json, origin: o }), 'https://agents.example.com'));
  assert.is(check('https://agents.example.com'), null);
  assert.is(check('http://agents.example.com'), 403);
  assert.is(check('https://evil.example'), 403);
  assert.is(check('null'), 403);
  assert.is(status(() => requireSameSiteJson(req(json), 'https://agents.example.com')), null, 'no Origin: not a browser');
});

sameSite('without it the Origin must name the host the browser addressed', () => {
  const check = (o: string) => status(() => requireSameSiteJson(req({ 'content-type': 'application/json', host: 'localhost:8080', origin: o }), null));
  assert.is(check('http://localhost:8080'), null);
  assert.is(check('https://localhost:8080'), null, 'behind a TLS proxy the scheme differs, the host does not');
  assert.is(check('http://localhost:8081'), 403);
  assert.is(check('http://evil.example'), 403);
});

sameSite.run();
