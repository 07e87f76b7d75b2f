/* The other half of the loop. */
#include "wing/a.h"
void hf_b(void);
