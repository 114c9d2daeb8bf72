/// The `console` of scripts: `log`, `info` and `debug` go to ``output``; `warn` and `error`
/// to ``errorOutput`` (the same sink unless given another).
public struct Console: Sendable {
    /// Receives `console.log`, `console.info` and `console.debug`.
    public var output: any OutputSink
    /// Receives `console.warn` and `console.error`: ``separateErrorOutput``, else ``output``.
    public var errorOutput: any OutputSink {
        get { separateErrorOutput ?? output }
        set { separateErrorOutput = newValue }
    }
    /// The sink for warnings and errors when they do not follow ``output``.
    public var separateErrorOutput: (any OutputSink)?

    /// A console writing to `output`, and warnings and errors to `errorOutput` (default: `output`,
    /// whatever it is later set to).
    public init(output: any OutputSink, errorOutput: (any OutputSink)? = nil) {
        self.output = output
        separateErrorOutput = errorOutput
    }

    /// Everything to standard output.
    public static var standard: Console { Console(output: FileHandleOutputSink.standardOutput) }

    func write(level: Int, line: String) {
        (level >= 3 ? errorOutput : output).write(line + "\n")
    }
}
