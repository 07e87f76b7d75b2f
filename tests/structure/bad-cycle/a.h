/* Half of an include cycle the check must find: a.c includes b.h, b.c includes a.h. */
void hf_a(void);
