/*
 * no_entry.c: a shared object that exports a function, but not mcph_plugin_entry (its
 * author guessed the wrong name). mcph must refuse it, naming the path and the symbol it
 * looked for, and must dlclose() it.
 */
#include "plugin-api.h"

MCPH_EXPORT int mcph_plugin_init(void);

MCPH_EXPORT int mcph_plugin_init(void)
{
    return 0;
}
