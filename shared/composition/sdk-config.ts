import { SdkConfigService } from '../domain/ingestion/sdk-config';
import type { Services } from '../services';
import { writeKeys } from './write-keys';

export const sdkConfigService = (s: Services) => s.once('sdkConfig', () => new SdkConfigService(writeKeys(s)));
