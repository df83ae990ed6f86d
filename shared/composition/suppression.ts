import { SuppressionIndex } from '../domain/regulations/suppression-index';
import { repository, type Services } from '../services';
import { RegulationRepository } from '../persistence/regulation-repository';

/** Which users' events are suppressed: delivery, capture and monitoring read it, regulations change it. */
export const suppressionIndex = (s: Services) => s.once('suppression', () => new SuppressionIndex(repository(s, RegulationRepository)));
