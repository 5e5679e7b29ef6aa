import { Link } from '@remix-run/react'
import type { MessageKey } from '#app/lib/i18n.ts'
import { useT } from '#app/root.tsx'
import type { RelationView } from './relation-item.tsx'

interface WikiLink {
  slug: string
  title: string
  status: string
  official: boolean
  summary: string | null
}

/** A term's relations grouped by type, a small graph of its neighbourhood, and its wiki pages. */
export function TermLinks(props: {
  termId: string
  relations: RelationView[]
  proposedCount: number
  wikiPages: WikiLink[]
}) {
  const t = useT()
  const groups = new Map<string, RelationView[]>()
  for (const relation of props.relations) {
    groups.set(relation.relationType, [...(groups.get(relation.relationType) ?? []), relation])
  }
  return (
    <>
      <section aria-labelledby="term-relations">
        <h2 id="term-relations">{t('relations.ofTerm')}</h2>
        {props.relations.length === 0 ? <p className="muted">{t('relations.none')}</p> : null}
        {[...groups].map(([type, relations]) => (
          <div key={type} className="relation-group" data-relation-type={type}>
            <h3>{t(`type.${type}` as MessageKey)}</h3>
            <ul>
              {relations.map((r) => {
                const outgoing = r.source.id === props.termId
                const other = outgoing ? r.target : r.source
                return (
                  <li key={r.id}>
                    {outgoing ? '→ ' : '← '}
                    <Link to={`/terms/${other.slug}`}>{other.name}</Link>
                    {r.stale ? <span className="badge stale">{t('relations.stale')}</span> : null}
                  </li>
                )
              })}
            </ul>
          </div>
        ))}
        {props.relations.length ? (
          <NeighbourhoodGraph termId={props.termId} relations={props.relations} />
        ) : null}
        <p className="muted">
          {props.proposedCount ? (
            <Link to={`/relations?status=proposed&termId=${props.termId}`}>
              {props.proposedCount} {t('relations.pending')}
            </Link>
          ) : null}{' '}
          {/* The form opens with this term as the source, so only the other one is left to pick. */}
          <Link to={`/relations/new?sourceId=${props.termId}`}>{t('relations.propose')}</Link>
        </p>
      </section>
      <section aria-labelledby="term-wiki">
        <h2 id="term-wiki">{t('wiki.ofTerm')}</h2>
        {props.wikiPages.length === 0 ? <p className="muted">{t('wiki.none')}</p> : null}
        <ul>
          {props.wikiPages.map((page) => (
            <li key={page.slug}>
              <Link to={`/wiki/${page.slug}`}>{page.title}</Link>{' '}
              {page.official ? null : (
                <span className="badge">{t(`wiki.status.${page.status}` as MessageKey)}</span>
              )}
            </li>
          ))}
        </ul>
      </section>
    </>
  )
}

/** The term in the middle, its neighbours on a circle, one labelled edge per relation (SVG, no script). */
function NeighbourhoodGraph(props: { termId: string; relations: RelationView[] }) {
  const t = useT()
  const size = 360
  const centre = size / 2
  const radius = 130
  const neighbours = new Map<string, { name: string; slug: string }>()
  for (const r of props.relations) {
    const other = r.source.id === props.termId ? r.target : r.source
    neighbours.set(other.id, { name: other.name, slug: other.slug })
  }
  const ids = [...neighbours.keys()]
  const position = (index: number) => {
    const angle = (2 * Math.PI * index) / ids.length - Math.PI / 2
    return { x: centre + radius * Math.cos(angle), y: centre + radius * Math.sin(angle) }
  }
  const self =
    props.relations[0]!.source.id === props.termId ? props.relations[0]!.source : props.relations[0]!.target
  return (
    <figure className="graph">
      <svg
        viewBox={`0 0 ${size} ${size}`}
        width={size}
        height={size}
        role="group"
        aria-label={t('relations.graph')}
      >
        <defs>
          <marker
            id="arrow"
            viewBox="0 0 10 10"
            refX="10"
            refY="5"
            markerWidth="6"
            markerHeight="6"
            orient="auto-start-reverse"
          >
            <path d="M 0 0 L 10 5 L 0 10 z" fill="#5b6475" />
          </marker>
        </defs>
        {props.relations.map((r) => {
          const outgoing = r.source.id === props.termId
          const other = position(ids.indexOf(outgoing ? r.target.id : r.source.id))
          const [from, to] = outgoing ? [{ x: centre, y: centre }, other] : [other, { x: centre, y: centre }]
          return (
            <g key={r.id}>
              <line x1={from.x} y1={from.y} x2={to.x} y2={to.y} stroke="#9aa3b5" markerEnd="url(#arrow)" />
              <text
                x={(from.x + to.x) / 2}
                y={(from.y + to.y) / 2}
                fontSize="10"
                fill="#5b6475"
                textAnchor="middle"
              >
                {t(`type.${r.relationType}` as MessageKey)}
              </text>
            </g>
          )
        })}
        {ids.map((id, index) => {
          const p = position(index)
          const node = neighbours.get(id)!
          return (
            <a key={id} href={`/terms/${node.slug}`}>
              <circle cx={p.x} cy={p.y} r="6" fill="#2952cc" />
              <text x={p.x} y={p.y - 10} fontSize="12" textAnchor="middle">
                {node.name}
              </text>
            </a>
          )
        })}
        <circle cx={centre} cy={centre} r="9" fill="#1d2330" />
        <text x={centre} y={centre + 24} fontSize="13" fontWeight="700" textAnchor="middle">
          {self.name}
        </text>
      </svg>
    </figure>
  )
}
