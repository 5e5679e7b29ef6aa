import type { EntityManager } from '@mikro-orm/postgresql'

/**
 * Transaction-scoped Postgres advisory locks. They serialize a check-then-write across every web process (the
 * lock lives in the database, not in process memory) and are released at commit or rollback. Take them only on
 * a transaction's EntityManager, before the check they protect: under READ COMMITTED each later statement sees
 * what the previous lock holder committed.
 */

/** Serializes first-admin creation (`POST /setup`, `glossary seed-admin`): one admin from N concurrent calls. */
export async function lockSetup(tx: EntityManager): Promise<void> {
  await tx.execute(`select pg_advisory_xact_lock(hashtext('glossary:setup'))`)
}

/**
 * Serializes every change that can lower the number of admins (account deletion, role change), so two admins
 * demoting or deleting each other at once cannot leave none.
 */
export async function lockAdmins(tx: EntityManager): Promise<void> {
  await tx.execute(`select pg_advisory_xact_lock(hashtext('glossary:admins'))`)
}
