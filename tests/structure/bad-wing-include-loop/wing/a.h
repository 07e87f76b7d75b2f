/* An include loop written as the core writes includes, from the folder above: wing/a.h includes
 * wing/b.h, which includes wing/a.h. */
#include "wing/b.h"
void hf_a(void);
