import { SnsAlertMail } from '../alerts/sns-mail';
import { AlertEvaluator } from '../domain/alerts/evaluator';
import { AlertService } from '../domain/alerts/alert-service';
import { channelNotifier } from '../domain/alerts/notify';
import { AlertCounterReads } from '../persistence/alert-reads';
import { AlertRepository } from '../persistence/alert-repository';
import { CatalogRepository } from '../persistence/catalog-repository';
import { repository, type Services } from '../services';

/** E-mail through the deployment's SNS (enabled by its setting). */
const alertMail = (s: Services) => s.once(SnsAlertMail, () => new SnsAlertMail());

/** Alert rules as the API manages them. */
export const alertService = (s: Services) =>
  s.once('alerts', () => new AlertService(repository(s, AlertRepository), repository(s, CatalogRepository), alertMail(s)));

/** The scheduled evaluation of every rule. */
export const alertEvaluator = (s: Services) =>
  s.once('alertEvaluator', () => new AlertEvaluator(repository(s, AlertRepository), repository(s, AlertCounterReads), channelNotifier(alertMail(s))));
