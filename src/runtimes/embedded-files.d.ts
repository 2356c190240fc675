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
// `import path from '…' with { type: 'file' }` yields the file's path (Bun embeds it when compiling).
declare module 'swagger-ui-dist/swagger-ui.css' {
  const path: string
  export default path
}
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const path: string
  export default path
}

// `import text from '…' with { type: 'text' }`: the docs site's embedded stylesheet, script, images and pages.
declare module '*.css' {
  const text: string
  export default text
}
declare module '*.svg' {
  const text: string
  export default text
}
declare module '*.md' {
  const text: string
  export default text
}
declare module '*/client.js' {
  const text: string
  export default text
}
declare module '*/search.js' {
  const text: string
  export default text
}
declare module '*/console.js' {
  const text: string
  export default text
}
