import { Migration } from '@mikro-orm/migrations'

/** The cased form in SQL, as `casedKey` (app/services/matching/letter-case.ts): NFKC, spaces folded, trimmed. */
const cased = (column: string) => `btrim(regexp_replace(normalize(${column}, NFKC), '\\s+', ' ', 'g'))`

/**
 * Names and notations that differ only by letter case became distinct forms (docs/decisions/
 * 013-letter-case.md). The stored folded key (`term_notations.normalized`) keeps its definition, but which
 * forms a term has changed: before, a name or notation that folded like an earlier one (a preferred notation
 * `Api` next to the name `API`, the only such pair the old rules allowed) was left out of `term_notations`;
 * now it is a form of its own, and without its row the matcher would call `Api` a wrong-case use of `API`.
 * This adds, for every term, each name and notation of its current revision that no stored form writes
 * alike (case kept), with the folded key of the stored form it was folded into; forms that are the same
 * with case kept stay folded, as the code folds them. Plain SQL, so the migration does not depend on app code.
 */
export class Migration20261121000700_case_distinct_notations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      with current_forms as (
        select t.id as term_id, f.text, f.kind, f.lang, f.source, f.ord
          from terms t
          join term_revisions r on r.term_id = t.id and r.revision = t.revision
          cross join lateral (
            select r.content->>'name' as text, 'preferred' as kind, null as lang, 'name' as source, 0::bigint as ord
            union all select r.content->>'fullName', 'preferred', null, 'full_name', 1
            union all select r.content->>'nameEn', 'preferred', 'en', 'name_en', 2
            union all select r.content->>'nameKo', 'preferred', 'ko', 'name_ko', 3
            union all select e.value->>'text', e.value->>'kind', e.value->>'lang', 'notation', 3 + e.ord
              from jsonb_array_elements(r.content->'notations') with ordinality as e(value, ord)
          ) f
         where t.deleted_at is null and coalesce(btrim(f.text), '') <> ''
      )
      insert into term_notations (id, term_id, text, normalized, kind, lang, source, position)
      select distinct on (c.term_id, ${cased('c.text')})
             gen_random_uuid(), c.term_id, c.text, n.normalized, c.kind, c.lang, c.source, 1000 + c.ord
        from current_forms c
        join term_notations n on n.term_id = c.term_id and n.normalized = lower(${cased('c.text')})
       where not exists (
               select 1 from term_notations m where m.term_id = c.term_id and ${cased('m.text')} = ${cased('c.text')}
             )
       order by c.term_id, ${cased('c.text')}, c.ord;
    `)
  }

  override async down(): Promise<void> {
    // Nothing to undo: older code reads the added rows as further entries of the same folded key.
  }
}
