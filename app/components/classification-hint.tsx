import { Link } from '@remix-run/react'
import { useOptionalUser, useT } from '#app/root.tsx'

/** Where domains and business categories are managed; only an administrator may open it. */
export const CLASSIFICATION_PAGE = '/admin/classification'

/**
 * What to do when the classification scheme is empty, where a form would list its entries (the term editor):
 * an administrator gets the link to the page that adds them, anyone else is told to ask one.
 */
export function ClassificationEmpty() {
  const t = useT()
  const user = useOptionalUser()
  return (
    <span className="muted" data-testid="classification-empty">
      {t('classification.editorNone')}{' '}
      {user?.role === 'admin' ? (
        <Link to={CLASSIFICATION_PAGE}>{t('classification.editorAdd')}</Link>
      ) : (
        t('classification.editorAsk')
      )}
    </span>
  )
}

/** The import page's note: classification keys in a file must exist first, and where they are managed. */
export function ClassificationImportHint() {
  const t = useT()
  const user = useOptionalUser()
  return (
    <p className="muted" data-testid="classification-import-hint">
      {t('classification.importHint')}{' '}
      {user?.role === 'admin' ? (
        <Link to={CLASSIFICATION_PAGE}>{t('classification.importManage')}</Link>
      ) : (
        t('classification.importAsk')
      )}
    </p>
  )
}
