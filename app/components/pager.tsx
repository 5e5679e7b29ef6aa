import { Link, useSearchParams } from '@remix-run/react'
import { useT } from '#app/root.tsx'

/** "Total: N · Page p/P  Previous Next" for a list page; links keep the current filters. */
export function Pager(props: { total: number; page: number; pageSize: number }) {
  const t = useT()
  const [params] = useSearchParams()
  const pages = Math.max(1, Math.ceil(props.total / props.pageSize))
  const link = (n: number) => {
    const next = new URLSearchParams(params)
    next.set('page', String(n))
    return `?${next}`
  }
  return (
    <p className="muted pager">
      {t('common.total')}: {props.total} · {t('common.page')} {props.page}/{pages}{' '}
      {props.page > 1 ? <Link to={link(props.page - 1)}>{t('common.previous')}</Link> : null}{' '}
      {props.page < pages ? <Link to={link(props.page + 1)}>{t('common.next')}</Link> : null}
    </p>
  )
}
