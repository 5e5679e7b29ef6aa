import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError, validationError, type Problem } from '#app/lib/errors.server.ts'
import type {
  PatchRelationInput,
  ProposeRelationInput,
  ReverseRelationInput,
} from '#app/schemas/relations.ts'
import { em } from '#db/orm.ts'
import { isUuid } from '#domain/ids.ts'
import { hasRole, type Role } from '#domain/identity.ts'
import {
  findDuplicate,
  insertRelation,
  selectRelationHead,
  selectTermHeads,
  updateIfVersion,
  type RelationChange,
  type RelationHead,
  type RelationTermHead,
} from './store.server.ts'

/**
 * Writing relations: propose, review (approve / reject), edit, and "wrong direction" (reject and propose the
 * reverse in one transaction). The rules are in docs/decisions/008-relations.md:
 * - anyone signed in proposes; editors and admins approve, reject, edit and reverse; the proposer may also
 *   edit or reverse their own relation while it is still `proposed`;
 * - proposed → approved | rejected; approved → rejected; any state → proposed by `edit`; out of rejected
 *   only by `edit` (which puts it up for review again);
 * - every change writes a new `version` with a conditional UPDATE (`where id = ? and version = ?`), so of
 *   two callers holding the same version exactly one wins and the other gets 409 `operation_conflict`;
 * - approving needs the recorded revisions to equal both terms' current ones, else 409 `revision_conflict`;
 * - one relation per (source, target, type), else 409 `duplicate_relation`.
 */

export interface RelationActor {
  id: string
  role: Role
}

function requireTerm(heads: Map<string, RelationTermHead>, id: string, field: string): RelationTermHead {
  const head = heads.get(id)
  if (!head) {
    throw new AppError('not_found', `No term ${id}.`, {
      details: { problems: [{ path: field, message: 'no such term' }] },
    })
  }
  if (head.status === 'merged') {
    throw new AppError(
      'term_merged',
      'A merged term cannot take part in new relations; use the term it was merged into.',
      {
        details: { termId: id },
      },
    )
  }
  return head
}

/** The recorded revisions must exist: 1 up to the term's current revision. */
function revisionProblems(
  source: RelationTermHead,
  target: RelationTermHead,
  sourceRevision: number,
  targetRevision: number,
): Problem[] {
  const problems: Problem[] = []
  if (sourceRevision > source.revision) {
    problems.push({
      path: 'sourceRevision',
      message: `the source term has no revision ${sourceRevision} (current: ${source.revision})`,
    })
  }
  if (targetRevision > target.revision) {
    problems.push({
      path: 'targetRevision',
      message: `the target term has no revision ${targetRevision} (current: ${target.revision})`,
    })
  }
  return problems
}

function duplicate(existingId: string | undefined): AppError {
  return new AppError(
    'duplicate_relation',
    'A relation with the same source, target and type already exists.',
    {
      details: existingId ? { existingId } : undefined,
    },
  )
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'UniqueConstraintViolationException'
}

/** Inserts a proposed relation unless the same (source, target, type) exists: 409 `duplicate_relation`. */
async function insertUnique(tx: EntityManager, row: Parameters<typeof insertRelation>[1]): Promise<string> {
  const existing = await findDuplicate(tx, row, null)
  if (existing) throw duplicate(existing)
  try {
    return await insertRelation(tx, row)
  } catch (error) {
    // Two proposals of the same relation racing on a multi-connection Postgres: the constraint decides.
    if (isUniqueViolation(error)) throw duplicate(undefined)
    throw error
  }
}

/** Proposes a relation (status `proposed`); returns its id. */
export async function proposeRelation(options: {
  input: ProposeRelationInput
  actor: RelationActor
}): Promise<{ id: string }> {
  const { input } = options
  return em().transactional(async (tx) => {
    const heads = await selectTermHeads(tx, [input.sourceTermId, input.targetTermId])
    const source = requireTerm(heads, input.sourceTermId, 'sourceTermId')
    const target = requireTerm(heads, input.targetTermId, 'targetTermId')
    const problems = revisionProblems(source, target, input.sourceRevision, input.targetRevision)
    if (problems.length) throw validationError(problems)
    const id = await insertUnique(tx, {
      ...input,
      sourceTermId: source.id,
      targetTermId: target.id,
      proposedById: options.actor.id,
      reversedFromId: null,
    })
    return { id }
  })
}

async function loadRelationHead(tx: EntityManager, id: string): Promise<RelationHead> {
  const head = await selectRelationHead(tx, id)
  if (!head) throw new AppError('not_found', `No relation ${id}.`)
  return head
}

function operationConflict(): AppError {
  return new AppError(
    'operation_conflict',
    'Someone else changed this relation since you read it. Reload it and decide again.',
  )
}

function assertVersion(head: RelationHead, version: string): void {
  if (head.version !== version) throw operationConflict()
}

/** Editors and admins may do everything; the proposer may edit (or reverse) while still proposed. */
function assertMay(head: RelationHead, actor: RelationActor, action: 'review' | 'edit'): void {
  if (hasRole(actor, 'editor')) return
  const ownProposal = head.status === 'proposed' && head.proposed_by_id === actor.id
  if (action === 'edit' && ownProposal) return
  throw new AppError(
    'forbidden',
    action === 'review'
      ? 'Only editors and admins approve or reject relations.'
      : 'Only editors and admins edit relations (a proposer may edit their own while it is proposed).',
  )
}

/** Applies a change while the relation still has `version`; else 409 `operation_conflict`. */
async function changeIfVersion(
  tx: EntityManager,
  id: string,
  version: string,
  change: RelationChange,
): Promise<void> {
  if (!(await updateIfVersion(tx, id, version, change))) throw operationConflict()
}

/**
 * Approves, rejects or edits a relation (spec: PATCH /relations/{id}). The version check comes first after the role (a relation changed by someone else is a
 * conflict whatever was asked), then the transition.
 */
export async function patchRelation(options: {
  id: string
  input: PatchRelationInput
  actor: RelationActor
}): Promise<{ id: string }> {
  const { input, actor } = options
  return em().transactional(async (tx) => {
    const head = await loadRelationHead(tx, options.id)
    assertMay(head, actor, input.action === 'edit' ? 'edit' : 'review')
    if (!isUuid(input.version)) throw operationConflict()
    assertVersion(head, input.version)

    if (input.action === 'approved') {
      if (head.status !== 'proposed') {
        throw new AppError(
          'conflict',
          `Only a proposed relation can be approved (this one is ${head.status}).`,
          {
            details: { status: head.status },
          },
        )
      }
      const heads = await selectTermHeads(tx, [head.source_term_id, head.target_term_id])
      const source = requireTerm(heads, head.source_term_id, 'sourceTermId')
      const target = requireTerm(heads, head.target_term_id, 'targetTermId')
      if (source.revision !== head.source_revision || target.revision !== head.target_revision) {
        throw new AppError(
          'revision_conflict',
          'A term changed since this relation was proposed. Check the current definitions and edit the relation to the current revisions before approving it.',
          {
            details: {
              sourceRevision: head.source_revision,
              currentSourceRevision: source.revision,
              targetRevision: head.target_revision,
              currentTargetRevision: target.revision,
            },
          },
        )
      }
      await changeIfVersion(tx, head.id, input.version, {
        kind: 'review',
        status: 'approved',
        reviewerId: actor.id,
      })
      return { id: head.id }
    }

    if (input.action === 'rejected') {
      if (head.status === 'rejected') {
        throw new AppError('conflict', 'This relation is already rejected.', {
          details: { status: head.status },
        })
      }
      await changeIfVersion(tx, head.id, input.version, {
        kind: 'review',
        status: 'rejected',
        reviewerId: actor.id,
      })
      return { id: head.id }
    }

    // edit: back to proposed with a new type, evidence and revisions; the two terms never change.
    const heads = await selectTermHeads(tx, [head.source_term_id, head.target_term_id])
    const source = requireTerm(heads, head.source_term_id, 'sourceTermId')
    const target = requireTerm(heads, head.target_term_id, 'targetTermId')
    const problems = revisionProblems(source, target, input.sourceRevision, input.targetRevision)
    if (problems.length) throw validationError(problems)
    const existing = await findDuplicate(
      tx,
      {
        sourceTermId: head.source_term_id,
        targetTermId: head.target_term_id,
        relationType: input.relationType,
      },
      head.id,
    )
    if (existing) throw duplicate(existing)
    try {
      await changeIfVersion(tx, head.id, input.version, {
        kind: 'edit',
        relationType: input.relationType,
        evidenceMd: input.evidenceMd,
        sourceRevision: input.sourceRevision,
        targetRevision: input.targetRevision,
        editorId: actor.id,
      })
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicate(undefined)
      throw error
    }
    return { id: head.id }
  })
}

/**
 * "Wrong direction": rejects the relation and proposes the reversed one (target → source) in ONE
 * transaction, so either both happen or neither. The new relation records both terms' current revisions,
 * keeps the type and evidence unless others are given, and points back at the rejected one.
 */
export async function reverseRelation(options: {
  id: string
  input: ReverseRelationInput
  actor: RelationActor
}): Promise<{ id: string; rejectedId: string }> {
  const { input, actor } = options
  return em().transactional(async (tx) => {
    const head = await loadRelationHead(tx, options.id)
    assertMay(head, actor, 'edit')
    if (!isUuid(input.version)) throw operationConflict()
    assertVersion(head, input.version)
    const heads = await selectTermHeads(tx, [head.source_term_id, head.target_term_id])
    const newSource = requireTerm(heads, head.target_term_id, 'targetTermId')
    const newTarget = requireTerm(heads, head.source_term_id, 'sourceTermId')
    await changeIfVersion(tx, head.id, input.version, {
      kind: 'review',
      status: 'rejected',
      reviewerId: actor.id,
    })
    const id = await insertUnique(tx, {
      sourceTermId: newSource.id,
      targetTermId: newTarget.id,
      relationType: input.relationType ?? head.relation_type,
      evidenceMd: input.evidenceMd ?? head.evidence_md,
      sourceRevision: newSource.revision,
      targetRevision: newTarget.revision,
      proposedById: actor.id,
      reversedFromId: head.id,
    })
    return { id, rejectedId: head.id }
  })
}
