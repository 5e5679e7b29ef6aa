/**
 * The release every process of one deployment must share (spec: Versioning): the web, the migrator and the
 * worker. Kept equal to package.json's version (tests/integration/ops/release.test.ts checks). The migrator records it in the database;
 * web and worker refuse to run against a database of another release (docs/decisions/032-operations.md).
 */
export const RELEASE = '0.3.3'
