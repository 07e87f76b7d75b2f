#include "a.h"
#include "b.h"

void hf_a(void)
{
    hf_b();
}
