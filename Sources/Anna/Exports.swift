// The types of other modules that Anna's public signatures use, re-exported so that
// `import Anna` alone is enough for an app: the results' `JSONValue`, the runtime's file access
// and console, the errors a script raises, the manager's logger.
//
// One type at a time rather than all of CoreJS: the engine's own machinery (contexts, module
// resolution, values of a live context) stays out of an app's namespace and completions. They
// are left out of Anna's documentation pages: they belong to their own modules.

@_exported @_documentation(visibility: internal) import struct CoreJS.Console
@_exported @_documentation(visibility: internal) import protocol CoreJS.FileAccess
@_exported @_documentation(visibility: internal) import struct CoreJS.FileHandleOutputSink
@_exported @_documentation(visibility: internal) import struct CoreJS.InMemoryFileAccess
@_exported @_documentation(visibility: internal) import struct CoreJS.JSONParseError
@_exported @_documentation(visibility: internal) import struct CoreJS.JSONParsingOptions
@_exported @_documentation(visibility: internal) import enum CoreJS.JSONValue
@_exported @_documentation(visibility: internal) import enum CoreJS.JavaScriptError
@_exported @_documentation(visibility: internal) import struct CoreJS.JavaScriptException
@_exported @_documentation(visibility: internal) import struct CoreJS.LocalFileAccess
@_exported @_documentation(visibility: internal) import class CoreJS.MemoryOutputSink
@_exported @_documentation(visibility: internal) import protocol CoreJS.OutputSink
@_exported @_documentation(visibility: internal) import struct Logging.Logger
