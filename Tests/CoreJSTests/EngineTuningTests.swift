import CoreJS
import Testing

@Suite struct EngineTuningTests {
    @Test("once a context exists, a tuning changes nothing and says so")
    func tuningAfterTheFirstContext() {
        _ = JavaScriptContext()
        #expect(EngineTuning.forManySessions() == [])
    }
}
