import type { Operation } from '../openapi-schema'

/**
 * An API operation as Markdown for a page's `.md` form and llms-full.txt: method and path, summary and description,
 * parameters, request body and responses, in words (the HTML page's schemas and playground are left out).
 */
export function operationMarkdown(operation: Operation): string {
  const lines = [`\`${operation.method} ${operation.path}\``, '']
  if (operation.deprecated) lines.push('**Deprecated.**', '')
  if (operation.description !== undefined) lines.push(operation.description.trim(), '')
  if (operation.parameters.length > 0) {
    lines.push('## Parameters', '')
    for (const parameter of operation.parameters) {
      const required = parameter.required === true ? ', required' : ''
      const description = parameter.description === undefined ? '' : `: ${oneLine(parameter.description)}`
      lines.push(`- \`${parameter.name}\` (${parameter.in}${required})${description}`)
    }
    lines.push('')
  }
  const body = operation.requestBody
  if (body !== undefined) {
    const types = Object.keys(body.content).join(', ')
    lines.push('## Request body', '', `${body.required ? 'Required' : 'Optional'}${types === '' ? '' : `, ${types}`}.`)
    if (body.description !== undefined) lines.push('', oneLine(body.description))
    lines.push('')
  }
  if (operation.responses.length > 0) {
    lines.push('## Responses', '')
    for (const response of operation.responses)
      lines.push(
        `- ${response.status}${response.description === undefined ? '' : `: ${oneLine(response.description)}`}`,
      )
    lines.push('')
  }
  return `${lines.join('\n')}\n`
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}
