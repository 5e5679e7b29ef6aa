import { Form, Link } from '@remix-run/react'
import { useT } from '#app/root.tsx'
import type { MessageKey } from '#app/lib/i18n.ts'

/** What the pages need of a relation read item (the service's RelationDto, as serialized). */
export interface RelationView {
  id: string
  relationType: string
  evidenceHtml: string
  status: string
  stale: boolean
  version: string
  sourceRevision: number
  targetRevision: number
  source: { id: string; slug: string; name: string; revision: number; definition: string }
  target: { id: string; slug: string; name: string; revision: number; definition: string }
  proposedBy: { id: string; name: string } | null
  lastReviewedBy: { id: string; name: string } | null
}

/** One relation: "source —type→ target", its evidence (sanitized HTML from the service), and review buttons. */
export function RelationItem(props: { relation: RelationView; canReview: boolean; busy?: boolean }) {
  const t = useT()
  const r = props.relation
  return (
    <article className="relation" data-relation-id={r.id} data-status={r.status}>
      <p className="relation-line">
        <Link to={`/terms/${r.source.slug}`}>{r.source.name}</Link>{' '}
        <span className="relation-type">—{t(`type.${r.relationType}` as MessageKey)}→</span>{' '}
        <Link to={`/terms/${r.target.slug}`}>{r.target.name}</Link>{' '}
        <span className={`badge status-${r.status}`}>{t(`status.${r.status}` as MessageKey)}</span>
        {r.stale ? (
          <span
            className="badge stale"
            title={`r${r.sourceRevision}→r${r.source.revision}, r${r.targetRevision}→r${r.target.revision}`}
          >
            {t('relations.stale')}
          </span>
        ) : null}
      </p>
      {/* The service renders evidence with markdown-it (raw HTML off) and sanitize-html; never raw input. */}
      <div className="evidence" dangerouslySetInnerHTML={{ __html: r.evidenceHtml }} />
      <p className="muted small">
        {r.proposedBy ? `${t('relations.proposedBy')}: ${r.proposedBy.name}` : null}
        {r.lastReviewedBy ? ` · ${t('relations.reviewedBy')}: ${r.lastReviewedBy.name}` : null}
      </p>
      {props.canReview ? (
        <div className="actions">
          {r.status === 'proposed' ? (
            <Form method="post" className="inline">
              <input type="hidden" name="id" value={r.id} />
              <input type="hidden" name="version" value={r.version} />
              <button type="submit" name="intent" value="approved" disabled={props.busy}>
                {t('relations.approve')}
              </button>
            </Form>
          ) : null}
          {r.status !== 'rejected' ? (
            <Form method="post" className="inline">
              <input type="hidden" name="id" value={r.id} />
              <input type="hidden" name="version" value={r.version} />
              <button
                type="submit"
                name="intent"
                value="rejected"
                className="secondary"
                disabled={props.busy}
              >
                {t('relations.reject')}
              </button>
            </Form>
          ) : null}
          <Form method="post" className="inline">
            <input type="hidden" name="id" value={r.id} />
            <input type="hidden" name="version" value={r.version} />
            <button type="submit" name="intent" value="reverse" className="secondary" disabled={props.busy}>
              {t('relations.reverse')}
            </button>
          </Form>
          <Link to={`/relations/${r.id}/edit`}>{t('relations.edit')}</Link>
        </div>
      ) : null}
    </article>
  )
}
