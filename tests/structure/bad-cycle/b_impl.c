/* Implements b.h under another name: still one node with b.h. */
#include "a.h"
#include "b.h"

void hf_b(void)
{
    hf_a();
}
