import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EMPTY_HASH, signRequest, uriEncode } from '../../server/storage/sigv4.ts';

const sigv4 = suite('sigv4');

// The example of AWS's "Signature Calculations for the Authorization Header" page (GET Object with a Range).
const EXAMPLE = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
  now: new Date('2013-05-24T00:00:00Z'),
};

sigv4('signs AWS documentation example (GET /test.txt, bytes=0-9) to its published signature', () => {
  const headers = signRequest({
    ...EXAMPLE, method: 'GET', url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'), headers: { Range: 'bytes=0-9' }, payloadHash: EMPTY_HASH,
  });
  assert.is(headers.authorization, 'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, '
    + 'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41');
  assert.is(headers['x-amz-date'], '20130524T000000Z');
  assert.not.ok('host' in headers, 'fetch sets Host from the URL');
});

sigv4('a different secret, date or query gives another signature', () => {
  const base = { ...EXAMPLE, method: 'GET', url: new URL('https://b.s3.amazonaws.com/k?list-type=2&prefix=a') };
  const one = signRequest(base).authorization;
  assert.is.not(signRequest({ ...base, credentials: { ...EXAMPLE.credentials, secretAccessKey: 'other' } }).authorization, one);
  assert.is.not(signRequest({ ...base, now: new Date('2013-05-25T00:00:00Z') }).authorization, one);
  assert.is.not(signRequest({ ...base, url: new URL('https://b.s3.amazonaws.com/k?list-type=2&prefix=b') }).authorization, one);
  // Query order does not matter: it is sorted before signing.
  assert.is(signRequest({ ...base, url: new URL('https://b.s3.amazonaws.com/k?prefix=a&list-type=2') }).authorization, one);
});

sigv4('encodes as RFC 3986 wants, slashes kept only in paths', () => {
  assert.is(uriEncode("a b/c!'()*~"), 'a%20b%2Fc%21%27%28%29%2A~');
  assert.is(uriEncode('agent-1/x y/é.pdf', true), 'agent-1/x%20y/%C3%A9.pdf');
});

sigv4.run();
