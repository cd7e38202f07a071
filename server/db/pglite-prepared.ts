// Named prepared statements for PGlite. Its query() sends Parse, Describe, Bind, Describe, Execute
// and Sync as six calls into the database and parses the SQL every time; a named statement is
// parsed once, then each call is Bind + Describe + Execute + Sync in one protocol round.
import { PGlite, parse, protocol } from '@electric-sql/pglite';
import type { Row, Statement } from './types.ts';

type Prepared = { types: number[] };

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
}

export function preparedQuery(pg: PGlite) {
  const { serialize } = protocol;
  const ready = new Map<string, Prepared>();
  // Plain queries and transactions take these locks too: nothing interleaves with a prepared call.
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> =>
    (pg as any)._runExclusiveTransaction(() => pg.runExclusive(fn));

  async function prepare(statement: Statement): Promise<Prepared> {
    const { messages } = await pg.execProtocol(concat([
      serialize.parse({ name: statement.name, text: statement.text }),
      serialize.describe({ type: 'S', name: statement.name }),
      serialize.sync(),
    ]), { syncToFs: false });
    const prepared = { types: parse.parseDescribeStatementResults(messages) };
    ready.set(statement.name, prepared);
    return prepared;
  }

  return async function run<T extends Row>(statement: Statement, params: unknown[]): Promise<T[]> {
    return exclusive(async () => {
      const { types } = ready.get(statement.name) ?? (await prepare(statement));
      const values = params.map((v, i) => {
        if (v === null || v === undefined) return null;
        const serializer = (pg as any).serializers[types[i]];
        return serializer ? serializer(v) : String(v);
      });
      const { messages } = await pg.execProtocol(concat([
        serialize.bind({ statement: statement.name, values }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
        serialize.sync(),
      ]), { syncToFs: false });
      await pg.syncToFs();
      return parse.parseResults(messages, (pg as any).parsers)[0]?.rows as T[] ?? [];
    });
  };
}
