/** Choosing terms by name (the term picker of the relation form and the wiki's linked terms). */
export const pickerEn = {} as const

export const pickerKo: Record<keyof typeof pickerEn, string> = {}
