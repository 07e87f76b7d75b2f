/* hf_why_set: one varargs formatter for the reasons of refusals (why.h). */
#include "base/why.h"

#include <stdarg.h>
#include <stdio.h>

void hf_why_set(char *why, size_t why_size, const char *fmt, ...)
{
    if (why == NULL || why_size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_size, fmt, ap);
    va_end(ap);
}
