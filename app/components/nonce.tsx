import { createContext, useContext } from 'react'

/** The CSP nonce of this response, for every inline script Remix renders. */
const NonceContext = createContext('')
export const NonceProvider = NonceContext.Provider
export const useNonce = () => useContext(NonceContext)
