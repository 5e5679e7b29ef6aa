// textlint-rule-prh ships no types; the tests hand it to textlint's kernel as a rule module.
declare module 'textlint-rule-prh' {
  import type { TextlintRuleModule } from '@textlint/types'
  const rule: TextlintRuleModule
  export default rule
}
