import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useNavigation } from '@remix-run/react'
import { fieldError, FormError } from '#app/components/forms.tsx'
import { HighlightedText } from '#app/components/terms/highlight.tsx'
import { checkSummary } from '#app/components/terms/check-summary.ts'
import { KindBadge, termHref, useLang } from '#app/components/terms/ui.tsx'
import type { MessageKey } from '#app/lib/i18n.ts'
import { formAction, invalidForm, parseForm } from '#app/pages/forms.server.ts'
import { requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import { ValidateSchema } from '#app/schemas/validation.ts'
import { validateText } from '#app/services/validation/validate.server.ts'

export const meta: MetaFunction = () => [{ title: 'Check a text · Glossary' }]

/** A page's check is bounded far below the API's 5 MB: the answer is rendered as HTML. */
const PAGE_TEXT_LIMIT = 200_000

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request)
  return { limit: PAGE_TEXT_LIMIT }
}

export async function action({ request }: ActionFunctionArgs) {
  await requireUserAction(request)
  const form = await request.formData()
  const text = String(form.get('text') ?? '').replace(/\r\n/g, '\n')
  const includePreferred = form.get('includePreferred') === 'on'
  const markup = form.get('markdown') === 'on' ? 'markdown' : 'text'
  if (text.length > PAGE_TEXT_LIMIT) {
    return invalidForm({
      ok: false as const,
      text,
      fieldErrors: { text: `At most ${PAGE_TEXT_LIMIT} characters.` },
    })
  }
  const parsed = parseForm(ValidateSchema, { text, includePreferred, markup })
  if (!parsed.ok) return invalidForm({ ...parsed, text })
  return formAction(async () => {
    const result = await validateText(parsed.data)
    return { ok: true as const, text, includePreferred, markup, ...result }
  })
}

export default function CheckPage() {
  const t = useT()
  const lang = useLang()
  const result = useActionData<typeof action>()
  const busy = useNavigation().state !== 'idle'
  const done = result && result.ok ? result : undefined
  const text = result && 'text' in result ? result.text : ''
  const findings = done ? [...done.occurrences].sort((a, b) => a.start - b.start) : []
  return (
    <section>
      <h1>{t('check.title')}</h1>
      <p className="muted">{t('check.intro')}</p>
      <Form method="post" className="stack wide">
        <FormError result={result} />
        <label htmlFor="check-text">
          {t('check.text')}
          <textarea id="check-text" name="text" rows={10} defaultValue={text} required />
          {fieldError(result, 'text') ? <span className="error">{fieldError(result, 'text')}</span> : null}
        </label>
        <label className="inline-check">
          <input
            type="checkbox"
            name="includePreferred"
            defaultChecked={done ? done.includePreferred : false}
          />
          {t('check.includePreferred')}
        </label>
        <label className="inline-check">
          <input type="checkbox" name="markdown" defaultChecked={done?.markup === 'markdown'} />
          {t('check.markdown')}
        </label>
        <button type="submit" disabled={busy}>
          {t('check.submit')}
        </button>
      </Form>

      {done ? (
        <>
          <h2>{t('check.result')}</h2>
          <p role="status" className="summary">
            {checkSummary(lang, done.occurrences, done.summary.terms)}
          </p>
          <p className="legend small">
            <mark className="finding kind-deprecated">{t('kind.deprecated')}</mark>{' '}
            <mark className="finding kind-admitted">{t('kind.admitted')}</mark>{' '}
            <mark className="finding kind-preferred">{t('kind.preferred')}</mark>{' '}
            <mark className="finding finding-wrong-case">{t('finding.wrong-case')}</mark>
          </p>
          <HighlightedText text={done.text} findings={done.occurrences} />
          {findings.length ? (
            <table className="findings">
              <thead>
                <tr>
                  <th>{t('check.position')}</th>
                  <th>{t('term.notation')}</th>
                  <th>{t('check.term')}</th>
                  <th>{t('term.kind')}</th>
                  <th>{t('check.finding')}</th>
                  <th>{t('check.preferred')}</th>
                  <th>{t('check.severity')}</th>
                </tr>
              </thead>
              <tbody>
                {findings.map((f, i) => (
                  <tr key={i} data-severity={f.severity}>
                    <td>
                      {f.line}:{f.column}
                    </td>
                    <td>{f.text}</td>
                    <td>
                      <Link to={termHref(f.term.slug)}>{f.term.name}</Link>
                    </td>
                    <td>
                      <KindBadge kind={f.kind} />
                    </td>
                    <td data-finding={f.finding}>{t(`finding.${f.finding}` as MessageKey)}</td>
                    <td>{f.preferred ?? '—'}</td>
                    <td>
                      <span className={`badge severity-${f.severity}`}>
                        {t(`severity.${f.severity}` as MessageKey)}
                      </span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p className="muted">{t('check.none')}</p>
          )}
        </>
      ) : null}
    </section>
  )
}
