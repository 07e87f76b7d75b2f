/* A loop made of calls alone: a.c uses b.c's function and b.c uses a.c's, and neither includes
 * the other. */
void hf_b(void);

void hf_a(void)
{
    hf_b();
}
