/** The release every process of one deployment must share (spec: Versioning). Kept equal to package.json. */
export const RELEASE = '0.3.3'
