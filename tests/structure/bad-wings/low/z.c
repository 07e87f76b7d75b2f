/* A lower wing that calls up without including anything. */
void hf_high(void);

void hf_z(void)
{
    hf_high();
}
