// `import path from '…' with { type: 'file' }` yields the file's path (Bun embeds it when compiling).
declare module 'swagger-ui-dist/swagger-ui.css' {
  const path: string
  export default path
}
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const path: string
  export default path
}
