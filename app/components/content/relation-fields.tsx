import { fieldError } from '#app/components/forms.tsx'
import type { MessageKey } from '#app/lib/i18n.ts'
import { useT } from '#app/root.tsx'
import { RELATION_TYPES } from '#domain/content.ts'

/** The relation type chooser of the propose and edit forms, and of the review queue's filter (with "all"). */
export function RelationTypeSelect(props: { name: string; defaultValue: string; withAll?: boolean }) {
  const t = useT()
  return (
    <label>
      {t('relations.type')}
      <select name={props.name} defaultValue={props.defaultValue}>
        {props.withAll ? <option value="">{t('common.all')}</option> : null}
        {RELATION_TYPES.map((type) => (
          <option key={type} value={type}>
            {t(`type.${type}` as MessageKey)}
          </option>
        ))}
      </select>
    </label>
  )
}

/** The evidence (Markdown) of the propose and edit forms, with its error from the last post. */
export function EvidenceField(props: { result: unknown; rows: number; defaultValue?: string }) {
  const t = useT()
  const error = fieldError(props.result, 'evidenceMd')
  return (
    <label>
      {t('relations.evidence')}
      <textarea
        name="evidenceMd"
        rows={props.rows}
        defaultValue={props.defaultValue}
        required
        maxLength={4000}
      />
      {error ? <span className="error">{error}</span> : null}
    </label>
  )
}
