/* The upper wing may use the lower one. */
#include "high/y.h"

void hf_x(void);

void hf_high(void)
{
    hf_x();
}
