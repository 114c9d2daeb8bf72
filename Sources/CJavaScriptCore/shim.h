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

// The engine's options (JSCOptions.h of the GLib API, in the same library), set before the
// first context: polling traps let the watchdog's callback let a script go on.

/// Sets a boolean option of the engine; returns whether it could (gboolean is an int).
int jsc_options_set_boolean(const char *option, int value);

/// Reads a boolean option of the engine into `value`; returns whether there is such an option.
int jsc_options_get_boolean(const char *option, int *value);

/// Sets an unsigned option of the engine; returns whether it could.
int jsc_options_set_uint(const char *option, unsigned value);

/// Reads an unsigned option of the engine into `value`; returns whether there is such an option.
int jsc_options_get_uint(const char *option, unsigned *value);

/// Turns on the engine's polling traps unless it runs already; returns whether they are on.
static inline bool anna_use_polling_traps(void) {
    jsc_options_set_boolean("usePollingTraps", 1);
    int value = 0;
    return jsc_options_get_boolean("usePollingTraps", &value) && value;
}

// JSGetMemoryUsageStatistics (JSBasePrivate.h, exported) reports the heap of a context's
// group; the watchdog reads it to enforce the memory limit. Declared weak like the above.

/// An object with `heapSize`, `heapCapacity`, `extraMemorySize`, `objectCount`, ….
JS_EXPORT JSObjectRef JSGetMemoryUsageStatistics(JSContextRef ctx) __attribute__((weak));

/// The bytes the heap of `ctx`'s group holds: its blocks (`heapCapacity`) and the memory its
/// objects own outside them (`extraMemorySize`: array buffers, large strings), or -1 where
/// the library cannot tell.
static inline long anna_heap_bytes(JSContextRef ctx) {
    if (JSGetMemoryUsageStatistics == NULL) return -1;
    JSObjectRef statistics = JSGetMemoryUsageStatistics(ctx);
    if (statistics == NULL) return -1;
    const char *names[] = {"heapCapacity", "extraMemorySize"};
    double total = 0;
    for (int index = 0; index < 2; index++) {
        JSStringRef name = JSStringCreateWithUTF8CString(names[index]);
        JSValueRef value = JSObjectGetProperty(ctx, statistics, name, NULL);
        JSStringRelease(name);
        if (value == NULL) return -1;
        total += JSValueToNumber(ctx, value, NULL);
    }
    return (long)total;
}

#endif
