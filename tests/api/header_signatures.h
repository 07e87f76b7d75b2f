/*
 * The exact type of every public function (API.md 6 and 7), as one list that the C and C++ header
 * probes each expand with their own HF_SIGNATURE(name, return type, parameter list).
 */
HF_SIGNATURE(hipFileGetOpErrorString, const char *, (hipFileOpError_t))
HF_SIGNATURE(hipFileHandleRegister, hipFileError_t, (hipFileHandle_t *, hipFileDescr_t *))
HF_SIGNATURE(hipFileHandleDeregister, void, (hipFileHandle_t))
HF_SIGNATURE(hipFileBufRegister, hipFileError_t, (const void *, size_t, int))
HF_SIGNATURE(hipFileBufDeregister, hipFileError_t, (const void *))
HF_SIGNATURE(hipFileRead, ssize_t, (hipFileHandle_t, void *, size_t, hoff_t, hoff_t))
HF_SIGNATURE(hipFileWrite, ssize_t, (hipFileHandle_t, const void *, size_t, hoff_t, hoff_t))
HF_SIGNATURE(hipFileDriverOpen, hipFileError_t, (void))
HF_SIGNATURE(hipFileDriverClose, hipFileError_t, (void))
HF_SIGNATURE(hipFileUseCount, int64_t, (void))
HF_SIGNATURE(hipFileDriverGetProperties, hipFileError_t, (hipFileDriverProps_t *))
HF_SIGNATURE(hipFileDriverSetPollMode, hipFileError_t, (bool, size_t))
HF_SIGNATURE(hipFileDriverSetMaxDirectIOSize, hipFileError_t, (size_t))
HF_SIGNATURE(hipFileDriverSetMaxCacheSize, hipFileError_t, (size_t))
HF_SIGNATURE(hipFileDriverSetMaxPinnedMemSize, hipFileError_t, (size_t))
HF_SIGNATURE(hipFileBatchIOSetUp, hipFileError_t, (hipFileBatchHandle_t *, unsigned))
HF_SIGNATURE(hipFileBatchIOSubmit, hipFileError_t,
             (hipFileBatchHandle_t, unsigned, hipFileIOParams_t *, unsigned))
HF_SIGNATURE(hipFileBatchIOGetStatus, hipFileError_t,
             (hipFileBatchHandle_t, unsigned, unsigned *, hipFileIOEvents_t *, struct timespec *))
HF_SIGNATURE(hipFileBatchIOCancel, hipFileError_t, (hipFileBatchHandle_t))
HF_SIGNATURE(hipFileBatchIODestroy, void, (hipFileBatchHandle_t))
HF_SIGNATURE(hipFileReadAsync, hipFileError_t,
             (hipFileHandle_t, void *, size_t *, hoff_t *, hoff_t *, ssize_t *, hipStream_t))
HF_SIGNATURE(hipFileWriteAsync, hipFileError_t,
             (hipFileHandle_t, void *, size_t *, hoff_t *, hoff_t *, ssize_t *, hipStream_t))
HF_SIGNATURE(hipFileStreamRegister, hipFileError_t, (hipStream_t, unsigned))
HF_SIGNATURE(hipFileStreamDeregister, hipFileError_t, (hipStream_t))
HF_SIGNATURE(hipFileGetVersion, hipFileError_t, (unsigned *, unsigned *, unsigned *))
HF_SIGNATURE(hipFileGetParameterSizeT, hipFileError_t, (hipFileSizeTConfigParameter_t, size_t *))
HF_SIGNATURE(hipFileGetParameterBool, hipFileError_t, (hipFileBoolConfigParameter_t, bool *))
HF_SIGNATURE(hipFileGetParameterString, hipFileError_t,
             (hipFileStringConfigParameter_t, char *, int))
HF_SIGNATURE(hipFileSetParameterSizeT, hipFileError_t, (hipFileSizeTConfigParameter_t, size_t))
HF_SIGNATURE(hipFileSetParameterBool, hipFileError_t, (hipFileBoolConfigParameter_t, bool))
HF_SIGNATURE(hipFileSetParameterString, hipFileError_t,
             (hipFileStringConfigParameter_t, const char *))
HF_SIGNATURE(hipFileGetStatsL1, hipFileError_t, (hipFileStatsLevel1_t *))
HF_SIGNATURE(hipFileGetStatsL2, hipFileError_t, (hipFileStatsLevel2_t *))
HF_SIGNATURE(hipFileGetStatsL3, hipFileError_t, (hipFileStatsLevel3_t *))
