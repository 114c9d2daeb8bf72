#ifndef ANNA_CJAVASCRIPTCORE_SHIM_H
#define ANNA_CJAVASCRIPTCORE_SHIM_H

#include <JavaScriptCore/JavaScript.h>
#include <stdbool.h>

// The execution time limit API lives in JSContextRefPrivate.h, which WebKitGTK does not
// install, although libjavascriptcoregtk-4.1 exports the symbols. Declared here with the
// signatures of that header so the engine can stop runaway scripts.

/// Asked periodically once the limit has passed; returning true terminates the script.
typedef bool (*JSShouldTerminateCallback)(JSContextRef ctx, void *context);

/// Sets the CPU time (seconds) a script may run per entry into the VM before `callback` is asked.
JS_EXPORT void JSContextGroupSetExecutionTimeLimit(JSContextGroupRef group, double limit,
                                                   JSShouldTerminateCallback callback,
                                                   void *context);

/// Removes the limit set by JSContextGroupSetExecutionTimeLimit.
JS_EXPORT void JSContextGroupClearExecutionTimeLimit(JSContextGroupRef group);

// JSGarbageCollect only asks for a collection on a timer, and timers need a run loop, which
// the engine's serial queue does not have. JSSynchronousGarbageCollectForDebugging (also
// JSContextRefPrivate.h, exported) collects before it returns. Declared weak: a library
// without it leaves it null, and JSGarbageCollect's request is the fallback.

/// Runs a full garbage collection before returning.
JS_EXPORT void JSSynchronousGarbageCollectForDebugging(JSContextRef ctx) __attribute__((weak));

/// Collects all garbage now where the library can (returns true), else asks for a collection.
static inline bool anna_collect_garbage_now(JSContextRef ctx) {
    if (JSSynchronousGarbageCollectForDebugging == NULL) {
        JSGarbageCollect(ctx);
        return false;
    }
    JSSynchronousGarbageCollectForDebugging(ctx);
    return true;
}

#endif
