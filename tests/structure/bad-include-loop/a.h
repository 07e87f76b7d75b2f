/* Half of an include loop the check must find: a.h includes b.h, which includes a.h. */
#include "b.h"
void hf_a(void);
