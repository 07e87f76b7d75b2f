/* The other half of the call loop. */
void hf_a(void);

void hf_b(void)
{
    hf_a();
}
