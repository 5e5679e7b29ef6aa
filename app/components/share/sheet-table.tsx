import type { SerializeFrom } from '@remix-run/node'
import {
  className,
  formatDate,
  KindBadge,
  StatusBadge,
  termHref,
  useLang,
} from '#app/components/terms/ui.tsx'
import { fill, type MessageKey } from '#app/lib/i18n.ts'
import { useT } from '#app/root.tsx'
import type { SheetColumn } from '#domain/share.ts'
import type { sheetLoader } from '#app/pages/share.server.ts'

type SheetData = Extract<SerializeFrom<typeof sheetLoader>, { signedIn: true }>
type Item = SheetData['items'][number]

/**
 * The shared table of `/sheet` and `/embed`: the chosen columns in the standard order of the link, names linked
 * to their pages when `links` is on (in a frame, in a new tab: the term pages refuse to be framed), and a note
 * with a link to the full list when more terms matched than the sheet shows.
 */
export function SheetTable({ data }: { data: SheetData }) {
  const t = useT()
  const lang = useLang()
  const { query, items, total } = data
  const inFrame = data.mode === 'embed'
  const linkProps = inFrame ? { target: '_blank', rel: 'noopener noreferrer' } : {}
  const notations = (item: Item, kind?: string) =>
    item.notations
      .filter((n) => !kind || n.kind === kind)
      .map((n) => (
        <span key={`${n.kind}:${n.text}`} className="notation">
          {n.text}
          {kind ? null : (
            <>
              {' '}
              <KindBadge kind={n.kind} />
            </>
          )}
        </span>
      ))
  const cell = (item: Item, column: SheetColumn) => {
    switch (column) {
      case 'name':
        return query.links ? (
          <a href={termHref(item.slug)} {...linkProps}>
            {item.name}
          </a>
        ) : (
          item.name
        )
      case 'fullName':
        return item.fullName ?? ''
      case 'nameEn':
        return item.nameEn ?? ''
      case 'nameKo':
        return item.nameKo ?? ''
      case 'notations':
        return notations(item)
      case 'preferred':
      case 'admitted':
      case 'deprecated':
        return notations(item, column)
      case 'domain':
        return item.domains.map((d) => className(data.domains, d, lang)).join(', ')
      case 'category':
        return item.categories.map((c) => className(data.categories, c, lang)).join(', ')
      case 'tags':
        return item.tags.join(', ')
      case 'status':
        return <StatusBadge status={item.status} />
      case 'definition':
        return item.definition
      case 'updatedAt':
        return formatDate(item.updatedAt)
      case 'revision':
        return String(item.revision)
    }
  }
  const classes = ['sheet-table', query.compact ? 'compact' : '', query.border ? 'bordered' : 'borderless']
  return (
    <section className={inFrame ? 'sheet embedded' : 'sheet'}>
      {items.length === 0 ? (
        <p className="muted">{t('sheet.none')}</p>
      ) : (
        // A sheet is as wide as its columns: it scrolls inside its own box, never the page (issue 27); the box
        // takes the keyboard focus so it scrolls without a mouse too.
        <div className="sheet-scroll" role="region" aria-label={t('sheet.heading')} tabIndex={0}>
          <table className={classes.filter(Boolean).join(' ')} data-rows={items.length}>
            <thead>
              <tr>
                {query.columns.map((c) => (
                  <th key={c} data-column={c}>
                    {t(`sheet.col.${c}` as MessageKey)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {items.map((item) => (
                <tr key={item.id} data-term-slug={item.slug}>
                  {query.columns.map((c) => (
                    <td key={c}>{cell(item, c)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {total > items.length ? (
        <p className="notice sheet-cap" role="status">
          {fill(t('sheet.capNote'), { shown: items.length, total, more: total - items.length })}{' '}
          <a href={data.fullListHref} {...linkProps}>
            {t('sheet.fullList')}
          </a>
        </p>
      ) : null}
    </section>
  )
}
