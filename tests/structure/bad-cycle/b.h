/* The other half of the cycle. */
void hf_b(void);
