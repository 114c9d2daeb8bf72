/// The `console` of scripts: `log`, `info` and `debug` go to ``output``; `warn` and `error`
/// to ``errorOutput`` (the same sink unless given another).
public struct Console: Sendable {
    /// Receives `console.log`, `console.info` and `console.debug`.
    public var output: any OutputSink
    /// Receives `console.warn` and `console.error`.
    public var errorOutput: any OutputSink

    /// A console writing to `output`, and warnings and errors to `errorOutput` (default: `output`).
    public init(output: any OutputSink, errorOutput: (any OutputSink)? = nil) {
        self.output = output
        self.errorOutput = errorOutput ?? output
    }

    /// Everything to standard output.
    public static var standard: Console { Console(output: FileHandleOutputSink.standardOutput) }

    func write(level: Int, line: String) {
        (level >= 3 ? errorOutput : output).write(line + "\n")
    }
}
