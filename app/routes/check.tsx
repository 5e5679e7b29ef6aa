import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useNavigation } from '@remix-run/react'
import { pageTitle } from '#app/lib/page-title.ts'
import { useDataTable } from '#app/components/data-table.tsx'
import { errorProps, fieldError, FieldError, FormError } from '#app/components/forms.tsx'
import { HighlightedText } from '#app/components/terms/highlight.tsx'
import { checkSummary } from '#app/components/terms/check-summary.ts'
import { KindBadge, termHref, useLang } from '#app/components/terms/ui.tsx'
import type { MessageKey } from '#app/lib/i18n.ts'
import { formAction, invalidForm, pageMessage, parseForm } from '#app/pages/forms.server.ts'
import { requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import { ValidateSchema } from '#app/schemas/validation.ts'
import { validateText } from '#app/services/validation/validate.server.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'check.title') }]

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
      fieldErrors: { text: pageMessage('fieldError.tooLong', { max: PAGE_TEXT_LIMIT }) },
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
  const table = useDataTable(
    {
      position: 'check.position',
      notation: 'term.notation',
      term: 'check.term',
      kind: 'term.kind',
      finding: 'check.finding',
      preferred: 'check.preferred',
      severity: 'check.severity',
    },
    { className: 'findings' },
  )
  return (
    <section>
      <h1>{t('check.title')}</h1>
      <p className="muted">{t('check.intro')}</p>
      <Form method="post" className="stack wide">
        <FormError result={result} />
        <label htmlFor="check-text">
          {t('check.text')}
          <textarea
            id="check-text"
            name="text"
            rows={10}
            defaultValue={text}
            required
            {...errorProps('check-text', fieldError(result, 'text'))}
          />
          <FieldError id="check-text" message={fieldError(result, 'text')} />
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
            <table {...table.props}>
              {table.head}
              <tbody {...table.body}>
                {findings.map((f, i) => (
                  <tr {...table.row} key={i} data-severity={f.severity}>
                    <td {...table.cell('position')}>
                      {f.line}:{f.column}
                    </td>
                    <td {...table.cell('notation')}>{f.text}</td>
                    <td {...table.cell('term')}>
                      <Link to={termHref(f.term.slug)}>{f.term.name}</Link>
                    </td>
                    <td {...table.cell('kind')}>
                      <KindBadge kind={f.kind} />
                    </td>
                    <td {...table.cell('finding')} data-finding={f.finding}>
                      {t(`finding.${f.finding}` as MessageKey)}
                    </td>
                    <td {...table.cell('preferred')}>{f.preferred ?? '—'}</td>
                    <td {...table.cell('severity')}>
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
