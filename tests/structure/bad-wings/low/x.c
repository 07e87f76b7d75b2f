/* A lower wing that includes a header of the wing above it. */
#include "high/y.h"

void hf_x(void)
{
}
