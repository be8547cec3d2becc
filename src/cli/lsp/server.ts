/**
 * `contracts lsp`: a language server (LSP 3.17) over stdin and stdout. It publishes the checker's
 * diagnostics for the contracts the editor has open, as they are edited (workspace.ts), and
 * answers hovers on `$ref`s and NATS address placeholders (hover.ts). Its packages are imported
 * here, when the command runs: the CLI's other commands never load them.
 */
import type { InitializeResult } from 'vscode-languageserver/node.js'
import { packageVersion } from '../../core/package-info.js'
import { Workspace } from './workspace.js'

/**
 * Serves until the client ends the session: the protocol library ends the process on `exit` (status
 * 0 after `shutdown`, else 1) and when the input closes or the client's process is gone.
 */
export async function serveLanguageServer(input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stdout): Promise<number> {
  // Only the protocol may reach stdout: whatever else would be printed there goes to stderr.
  console.log = console.info = console.debug = console.error
  const lsp = await import('vscode-languageserver/node.js')
  const { TextDocument } = await import('vscode-languageserver-textdocument')
  const connection = lsp.createConnection(lsp.ProposedFeatures.all, input, output)
  const log = (message: string) => connection.console.error(message)
  // A bug of the server's own is logged to the client, never the end of the session.
  process.on('uncaughtException', (error) => log(`contracts lsp: ${error.stack ?? String(error)}`))
  process.on('unhandledRejection', (error) => log(`contracts lsp: ${(error as Error)?.stack ?? String(error)}`))
  const documents = new lsp.TextDocuments(TextDocument)
  const workspace = new Workspace((publication) => void connection.sendDiagnostics(publication), undefined, log)
  const guarded =
    <A extends unknown[]>(handler: (...args: A) => void) =>
    (...args: A) => {
      try {
        handler(...args)
      } catch (error) {
        log(`contracts lsp: ${(error as Error).stack ?? String(error)}`)
      }
    }

  connection.onInitialize((): InitializeResult => ({
    capabilities: {
      // Incremental edits (the editor sends ranges; full texts are taken too). Positions are
      // UTF-16 code units, LSP's default: the compiler counts columns the same way (diagnostics.ts).
      textDocumentSync: { openClose: true, change: lsp.TextDocumentSyncKind.Incremental, save: { includeText: false } },
      hoverProvider: true,
    },
    serverInfo: { name: 'contracts', version: packageVersion },
  }))
  // Opened or edited: the document's whole text as the editor has it now.
  documents.onDidChangeContent(guarded(({ document }) => workspace.update(document.uri, document.version, document.getText())))
  documents.onDidClose(guarded(({ document }) => workspace.close(document.uri)))
  // A save or a change on disk may change what a contract reads from files no editor has open.
  documents.onDidSave(guarded(() => workspace.refresh()))
  connection.onDidChangeWatchedFiles(guarded(() => workspace.refresh()))
  // LSP 3.17: "If a server receives requests after a shutdown request those requests should error
  // with InvalidRequest." Hover is the one request served besides the protocol's own.
  let shutDown = false
  connection.onHover(async ({ textDocument, position }) => {
    if (shutDown) return new lsp.ResponseError(lsp.ErrorCodes.InvalidRequest, 'The server is shutting down: it answers no more requests.')
    const document = documents.get(textDocument.uri)
    if (!document) return null
    try {
      const answer = await workspace.hover(textDocument.uri, document.offsetAt(position))
      if (!answer) return null
      return {
        contents: { kind: lsp.MarkupKind.Markdown, value: answer.markdown },
        range: { start: document.positionAt(answer.start), end: document.positionAt(answer.end) },
      }
    } catch (error) {
      log(`contracts lsp: hover failed: ${(error as Error).stack ?? String(error)}`)
      return null
    }
  })
  connection.onShutdown(() => {
    shutDown = true
    workspace.dispose()
  })
  documents.listen(connection)
  connection.listen()
  return new Promise<number>(() => {})
}
