/** Messages of refused forms: what is wrong with a field and what to do, and failures of the services behind a page. */
export const fieldsEn = {} as const

export const fieldsKo: Record<keyof typeof fieldsEn, string> = {}
