import Foundation

/// How much of the machine other processes used while a measurement ran: the noise gauge.
///
/// Reads the busy time of all CPUs (`/proc/stat`: user, nice, system, irq, softirq and
/// steal, the last being time a hypervisor gave to someone else) and this process's own
/// CPU time (`/proc/self/stat`: utime and stime of all its threads). What the machine
/// spent beyond this process went to others. On the 2-core machine a share above about
/// 0.1 means the figure is low because something else ran (a build, tests).
///
/// ```swift
/// let before = MachineLoad.Reading.now()
/// … measure …
/// let share = MachineLoad.Reading.now().othersShare(since: before)
/// ```
enum MachineLoad {
    /// One reading of the clocks, in clock ticks and nanoseconds.
    struct Reading {
        var machineBusyTicks: Int
        var processTicks: Int
        /// The process's CPU time in nanoseconds (`CLOCK_PROCESS_CPUTIME_ID`: finer than ticks).
        var processCPUNanoseconds: UInt64
        var wallNanoseconds: UInt64

        /// Reads the clocks; zeros where procfs cannot be read (the share is then 0).
        static func now() -> Reading {
            var cpu = timespec()
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu)
            return Reading(
                machineBusyTicks: machineBusy(), processTicks: processTime(),
                processCPUNanoseconds: UInt64(cpu.tv_sec) * 1_000_000_000 + UInt64(cpu.tv_nsec),
                wallNanoseconds: MonotonicClock.now())
        }

        /// The CPU time of all this process's threads since `start`, in seconds.
        func processSeconds(since start: Reading) -> Double {
            Double(processCPUNanoseconds - start.processCPUNanoseconds) / 1e9
        }

        /// The fraction of all CPUs' time since `start` that went to other processes (0…1);
        /// 0 for spans under a quarter of a second, which the 10 ms ticks cannot resolve.
        func othersShare(since start: Reading) -> Double {
            let wall = MonotonicClock.seconds(from: start.wallNanoseconds, to: wallNanoseconds)
            guard wall >= 0.25, cpuCount > 0 else { return 0 }
            let others = Double(max(0, (machineBusyTicks - start.machineBusyTicks) - (processTicks - start.processTicks)))
            return min(1, others / ticksPerSecond / (wall * Double(cpuCount)))
        }
    }

    /// CPUs online.
    static let cpuCount = ProcessInfo.processInfo.activeProcessorCount
    /// Clock ticks per second of `/proc` times (`USER_HZ`).
    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// The first line of `/proc/stat`: `cpu user nice system idle iowait irq softirq steal …`.
    private static func machineBusy() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first
        else { return 0 }
        let fields = line.split(separator: " ").dropFirst().compactMap { Int($0) }
        guard fields.count >= 8 else { return 0 }
        return fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7]
    }

    /// utime + stime (fields 14 and 15 of `/proc/self/stat`; the name in field 2 may hold spaces).
    private static func processTime() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, so utime (14) and stime (15) are at 11 and 12.
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return 0 }
        return user + system
    }
}
