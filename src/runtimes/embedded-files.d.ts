// `import path from '…' with { type: 'file' }` yields the file's path (Bun embeds it when compiling).
declare module '@electric-sql/pglite/pglite.wasm' {
  const path: string
  export default path
}
declare module '@electric-sql/pglite/initdb.wasm' {
  const path: string
  export default path
}
declare module '@electric-sql/pglite/pglite.data' {
  const path: string
  export default path
}
