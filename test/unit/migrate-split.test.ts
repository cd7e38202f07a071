// Migration files are split into statements at semicolons that end a line, but not inside a
// $$-quoted function body, whose own statements end lines too.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { splitStatements } from '../../server/db/migrate.ts';

test('statements split at line-ending semicolons; comments go', () => {
  const sql = `-- a table\nCREATE TABLE a (x int);\nCREATE INDEX a_x ON a (x);  \n\n-- done;\n`;
  assert.equal(splitStatements(sql), ['CREATE TABLE a (x int)', 'CREATE INDEX a_x ON a (x)']);
});

test('a $$ body stays one statement with its inner semicolons', () => {
  const body = `CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n  UPDATE c SET n = n + 1;\n  RETURN NULL;\nEND\n$$`;
  const sql = `${body};\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION f();\n`;
  assert.equal(splitStatements(sql), [body, 'CREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION f()']);
});

test('a one-line $$ body does not open a quote', () => {
  assert.equal(splitStatements(`SELECT $$a;$$;\nSELECT 2;`), ['SELECT $$a;$$', 'SELECT 2']);
});

test.run();
