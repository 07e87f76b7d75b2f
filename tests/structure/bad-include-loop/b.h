/* The other half of the include loop. */
#include "a.h"
void hf_b(void);
